"""`docsassistant conversations list | delete THREAD | prune --older-than 90d`: retention."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated

import typer
from rich.console import Console

from docsassistant.cli.errors import friendly_errors

conversations = typer.Typer(help="List, delete and prune conversations.", no_args_is_help=True)
out = Console()

_AGE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$")
_UNITS = {"h": "hours", "d": "days", "w": "weeks"}


def parse_age(text: str) -> timedelta:
    """`90d`, `12h`, `2w` → a timedelta; anything else is refused with an example."""
    match = _AGE.match(text or "")
    if not match or int(match[1]) == 0:
        raise typer.BadParameter(f"{text!r} is not an age: use a number and a unit h, d or w, e.g. 90d.")
    return timedelta(**{_UNITS[match[2]]: int(match[1])})


@conversations.command("list")
def list_command(limit: Annotated[int, typer.Option(help="Show at most this many.")] = 50) -> None:
    """Conversations, most recently continued first."""
    from docsassistant.conversations import list_conversations

    with friendly_errors():
        rows = list_conversations(limit)
    for row in rows:
        out.print(f"{row['thread_id']}  {row['updated_at']:%Y-%m-%d %H:%M}  {row['title']}", highlight=False)
    if not rows:
        out.print("No conversations.")


@conversations.command("delete")
def delete_command(thread: Annotated[str, typer.Argument(help="The conversation's thread id.")]) -> None:
    """Delete a conversation: its turns and checkpoints. Share links keep their snapshots."""
    from docsassistant.agent.turn_lock import ThreadBusy
    from docsassistant.conversations import ConversationNotFound, delete_conversation

    with friendly_errors(ConversationNotFound, ThreadBusy):
        delete_conversation(thread)
    out.print(f"Deleted conversation {thread}.", highlight=False)


@conversations.command("prune")
def prune_command(
    older_than: Annotated[
        str,
        typer.Option("--older-than", help="Delete conversations not continued for this long (90d, 12h, 2w)."),
    ],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would be deleted.")] = False,
) -> None:
    """Delete every conversation not continued within the given age."""
    from docsassistant.conversations import prune_conversations, stale_conversations

    age = parse_age(older_than)
    with friendly_errors():
        rows = stale_conversations(age) if dry_run else prune_conversations(age)
    verb = "Would delete" if dry_run else "Deleted"
    for row in rows:
        out.print(f"  {row['thread_id']}  {row['updated_at']:%Y-%m-%d}  {row['title']}", highlight=False)
    out.print(f"{verb} {len(rows)} conversation{'s' * (len(rows) != 1)} older than {older_than}.")


def register(app: typer.Typer) -> None:
    app.add_typer(conversations, name="conversations")
