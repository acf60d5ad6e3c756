"""Check the answer claim by claim against its sources."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime

from docsassistant.agent.calls import invoke_structured, usage
from docsassistant.agent.checks.findings import code_findings
from docsassistant.agent.checks.obeyed_orders import obeyed_orders
from docsassistant.agent.checks.verdict import judge
from docsassistant.agent.context import AgentContext
from docsassistant.agent.events import event, flag
from docsassistant.agent.injection.detector import redact_injection
from docsassistant.agent.nodes.common import traced
from docsassistant.agent.prompts import VERIFY_SYSTEM, format_documents, with_evidence
from docsassistant.agent.schemas import Verification
from docsassistant.agent.state import AgentState


@traced("verify")
def verify(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """One structured call judges every claim. Unsupported claims trigger one
    regeneration without them (unless this turn already regenerated, or the answer obeyed
    an order removed from a source); otherwise the code checks
    (`checks.findings.code_findings`) add what the verifier let through, and the verdict
    and its flags come from `checks.verdict.judge`."""
    ctx = runtime.context
    sources = state.get("sources", [])
    answer = state.get("answer") or ""
    if not answer.strip():  # nothing to check (already flagged empty_answer): no model call
        verification = {"status": "not_applicable", "claims": []}
        return {"verification": verification, "trace": [event("verification", **verification)]}
    # Sources keep the original text (for display); the verifier sees what the generator saw.
    seen = [
        {**s, "prompt_text": redact_injection(s["content"]) if s.get("suspicious") else None} for s in sources
    ]
    documents = format_documents(seen)
    parsed, raw = invoke_structured(
        ctx.llm,
        Verification,
        [SystemMessage(VERIFY_SYSTEM), HumanMessage(with_evidence(documents, answer))],
    )
    cited = [c["n"] for c in state.get("citations", [])]
    obeyed = obeyed_orders(answer, sources)
    claims = parsed.claims if isinstance(parsed, Verification) else None
    if claims and any(not c.supported for c in claims) and not state.get("regenerated") and not obeyed:
        unsupported = [c.claim for c in claims if not c.supported]
        trace = [event("verification", status="regenerating", claims=[c.model_dump() for c in claims])]
        return {"unsupported": unsupported, "regenerate": True, "trace": trace, **usage(raw)}
    found = code_findings(
        answer,
        sources,
        state.get("question") or "",
        seen=seen,
        cited=cited,
        claims=claims,
        user_messages=[str(m.content) for m in state.get("messages", []) if isinstance(m, HumanMessage)],
        standalone_question=state.get("standalone_question"),
        sufficient=bool(state.get("sufficient")),
        chunks=state.get("chunks", []),
    )
    verdict = judge(
        cited,
        claims,
        obeyed,
        found.unbacked,
        found.unchecked,
        found.reversals,
        found.weak,
        found.off_question,
        bool(state.get("truncated")),
        answer,
    )
    verification = {
        "status": verdict.status,
        "claims": [c.model_dump() for c in claims or []],
        "regenerated": bool(state.get("regenerated")),
    }
    if obeyed:
        verification["obeyed"] = obeyed
    trace = [event("verification", **verification)]
    if not found.same_language:
        reason = "the answer is not in the documentation's language; its figures were still checked"
        trace.insert(0, event("decision", kind="word_checks_skipped", reason=reason))
    unsupported = [c.claim for c in claims or [] if not c.supported]
    for kind, message in verdict.flags:
        trace.append(flag(kind, message, **({"claims": unsupported} if kind == "unsupported_claims" else {})))
    return {"verification": verification, "unsupported": unsupported, "trace": trace, **usage(raw)}
