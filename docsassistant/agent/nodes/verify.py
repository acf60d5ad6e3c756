"""Check the answer claim by claim against its sources."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.nodes.common import traced
from docsassistant.agent.prompts import VERIFY_SYSTEM, format_documents, verify_request
from docsassistant.agent.safety import redact_injection
from docsassistant.agent.schemas import Verification
from docsassistant.agent.state import AgentState


@traced("verify")
def verify(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """One structured call judges every claim. Unsupported claims trigger one
    regeneration without them; what stays unsupported after that is flagged."""
    ctx = runtime.context
    sources = state.get("sources", [])
    # Sources keep the original text (for display); the verifier sees it redacted, like
    # every other prompt.
    documents = format_documents(
        [
            {**s, "prompt_text": redact_injection(s["content"]) if s.get("suspicious") else s["content"]}
            for s in sources
        ]
    )
    parsed, raw = invoke_structured(
        ctx.llm,
        Verification,
        [SystemMessage(VERIFY_SYSTEM), HumanMessage(verify_request(state["answer"], documents))],
    )
    if not isinstance(parsed, Verification):
        verification = {"status": "unverified", "claims": []}
        trace = [
            event("verification", **verification),
            flag("unverified", "The verifier's reply could not be read; the answer is unverified."),
        ]
        return {"verification": verification, "trace": trace, **usage(raw)}
    claims = [c.model_dump() for c in parsed.claims]
    unsupported = [c["claim"] for c in claims if not c["supported"]]
    if unsupported and not state.get("regenerated"):
        trace = [event("verification", status="regenerating", claims=claims)]
        return {"unsupported": unsupported, "regenerate": True, "trace": trace, **usage(raw)}
    status = "unsupported" if unsupported else "grounded"
    verification = {"status": status, "claims": claims, "regenerated": bool(state.get("regenerated"))}
    trace = [event("verification", **verification)]
    if unsupported:
        trace.append(
            flag(
                "unsupported_claims",
                f"{len(unsupported)} claim(s) not supported by the sources.",
                claims=unsupported,
            )
        )
    else:
        trace.append(flag("grounded", f"All {len(claims)} claim(s) are supported by the cited sources."))
    return {"verification": verification, "unsupported": unsupported, "trace": trace, **usage(raw)}
