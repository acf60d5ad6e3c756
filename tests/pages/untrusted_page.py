"""A page for tests/test_browser_untrusted.py: hostile answers, a question and a title drawn
by the app's own helpers (live, then as a stored turn), without a database or a model.

`streamlit run tests/pages/untrusted_page.py` with PIXEL_URL set to the image server.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for hostile_markdown

from hostile_markdown import hostile_answers

from docsassistant.agent.records import TurnRecord
from docsassistant.ui import render
from docsassistant.ui.live import LiveTurn
from docsassistant.ui.safe_text import esc, plain_markdown

pixel = os.environ["PIXEL_URL"]
question = f"What is the default? ![q]({pixel}&question) [me](http://evil.example/q)"
answer = "\n\n".join(["The default is **42** [1]. END-OF-ANSWER", *hostile_answers(pixel)])
record = TurnRecord(question=question, answer=answer, status="completed")

st.header(esc(question), anchor=False)  # as the chat page titles a conversation
st.button("conversation", help=plain_markdown(question))  # as the sidebar's tooltip
with st.chat_message("assistant"):
    live = LiveTurn()
    for start in range(0, len(answer), 40):  # streamed in pieces, as tokens arrive
        live.on_event({"type": "token", "text": answer[start : start + 40]})
    live.on_event({"type": "turn_complete", "record": record, "thread_id": None})
render.render_turn(record)
for hostile in hostile_answers(pixel):  # each on its own too: an unclosed fence hides no later one
    render.render_turn(TurnRecord(question=question, answer=hostile, status="completed"))
st.markdown("PAGE-DONE")
