"""The skipped-step check (agent/checks/skipped_steps.py) on its own: pure functions."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.skipped_steps import skipped_steps

STEPS = {
    "content": "## Install a worker\n\n1. Install the package: `sudo apt install quill-worker`.\n"
    "2. Copy the server's CA certificate to `/etc/quillrun/ca.pem` and set `worker.ca_file` to it.\n"
    "3. Set `worker.server_url` and `worker.token` in `/etc/quillrun/worker.yaml`.\n"
    "4. Start the service: `sudo systemctl enable --now quill-worker`.\n"
}
ENOUGH = "Is it enough to set worker.server_url and worker.token to connect a new worker?"


def test_a_yes_leaving_out_a_cited_step_is_flagged() -> None:
    """Blind QA round 15 w35: the CA step left out of a yes."""
    answer = (
        "Yes. Install `quill-worker`, set `worker.server_url` and `worker.token` in "
        "`/etc/quillrun/worker.yaml` and start it with `sudo systemctl enable --now quill-worker` [1]."
    )
    assert skipped_steps(answer, ENOUGH, [STEPS]) == [
        "yes, though the cited steps also include \"Copy the server's CA certificate to "
        '`/etc/quillrun/ca.pem` and set `worker.ca_file` to it."'
    ]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # every step said
        (
            ENOUGH,
            "Yes, once the package is installed (`sudo apt install quill-worker`), the CA certificate copied "
            "to `/etc/quillrun/ca.pem` with `worker.ca_file` set, `worker.server_url` and `worker.token` set "
            "in `/etc/quillrun/worker.yaml`, and the service started (`sudo systemctl enable --now "
            "quill-worker`) [1].",
        ),
        (ENOUGH, "No. You also need the server's CA certificate in `worker.ca_file` [1]."),
        # not a question of whether something suffices
        ("How do I connect a worker?", "Yes. Set `worker.server_url` and `worker.token` [1]."),
        # no step of the list said: the answer is not drawn from it
        ("Is an operate token enough to pause a job?", "Yes, the operate scope allows pausing jobs [1]."),
    ],
)
def test_every_step_said_or_no_yes_or_no_procedure_is_not_flagged(question: str, answer: str) -> None:
    assert skipped_steps(answer, question, [STEPS]) == []
