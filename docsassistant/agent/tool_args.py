"""Validating a tool call's arguments against the tool's own pydantic schema.

Models get types slightly wrong in predictable ways: numbers as strings (`"k": "5"`), a
single value wrapped in a list (`"component": ["vector-rag"]`), `null` for "use the
default". Where the intent is clear we coerce (pydantic's lax mode turns "5" into 5); what
cannot be used becomes a readable message that goes back to the model as the tool result.
"""

from __future__ import annotations

import typing
from typing import Any

from langchain_core.tools import BaseTool
from pydantic import BaseModel, ValidationError


class ToolArgsError(ValueError):
    """The arguments cannot be used; the message is written for the model to fix them."""


def _takes_many(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        return True
    return any(_takes_many(a) for a in typing.get_args(annotation)) if origin is not None else False


def validated_args(tool: BaseTool, args: Any) -> dict[str, Any]:
    """The call's arguments as the tool's schema types them, or ToolArgsError."""
    schema = tool.args_schema
    if not isinstance(args, dict):
        raise ToolArgsError(f"{tool.name} takes a JSON object of arguments, got {type(args).__name__}.")
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        return dict(args)
    fields = schema.model_fields
    cleaned: dict[str, Any] = {}
    for key, value in args.items():
        if value is None or key not in fields:
            continue  # null means "the default"; unknown keys are ignored, as pydantic would
        if isinstance(value, list) and not _takes_many(fields[key].annotation):
            if len(value) != 1:
                raise ToolArgsError(
                    f"{tool.name}: `{key}` takes one value, got {len(value)} ({value!r}). "
                    f"Call {tool.name} once per value."
                )
            value = value[0]
        cleaned[key] = value
    try:
        return schema.model_validate(cleaned).model_dump()
    except ValidationError as exc:
        problems = "; ".join(
            f"`{'.'.join(str(p) for p in err['loc']) or 'arguments'}`: {err['msg']}" for err in exc.errors()
        )
        raise ToolArgsError(f"{tool.name}: invalid arguments ({problems}).") from exc
