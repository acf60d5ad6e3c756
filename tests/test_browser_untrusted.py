"""In chromium: hostile markdown in answers, questions and titles loads nothing.

Streamlit renders `tests/pages/untrusted_page.py` (the app's own render helpers, no
database or model); an image server records every request. Before `safe_text`, each
answer here made the browser fetch the image URL (with whatever the model put in it).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest
from test_browser_e2e import CHROMIUM, CHROMIUM_ARGS, free_port, streamlit_command, wait_healthy

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "tests" / "pages" / "untrusted_page.py"


class _Pixel(BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self) -> None:
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/gif")
        self.end_headers()
        self.wfile.write(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")

    def log_message(self, format: str, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def pixel_server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Pixel", (_Pixel,), {"hits": hits})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/p.gif?leak=secret", hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed: `apt-get install -y chromium` (Debian)")
def test_no_image_from_untrusted_text_is_fetched(pixel_server, tmp_path):
    pytest.importorskip("playwright.sync_api", reason="playwright (python) is not installed")
    from playwright.sync_api import sync_playwright

    pixel, hits = pixel_server
    port = free_port()
    log = tmp_path / "streamlit.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            streamlit_command(str(PAGE), port),
            cwd=ROOT,
            env={**os.environ, "PIXEL_URL": pixel},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_healthy(url, proc, log)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                # Tall enough for the whole page: an image below the fold may load lazily.
                page = browser.new_page(viewport={"width": 1280, "height": 16000})
                page.goto(url)
                page.get_by_text("PAGE-DONE").wait_for(timeout=60_000)
                page.get_by_role("button", name="conversation").hover()  # shows the tooltip
                page.wait_for_timeout(1000)  # any image would have been requested by now
                body = page.inner_text("body")
                images = page.locator("[data-testid=stMain] img, [data-testid=stTooltipContent] img").count()
            finally:
                browser.close()
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    assert hits == [], hits
    assert images == 0
    assert "END-OF-ANSWER" in body and "image: status" in body and "not loaded" in body
    assert "[me](http://evil.example/q)" in body  # the question, as typed
