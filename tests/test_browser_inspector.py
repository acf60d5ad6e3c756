"""The search inspector in a real browser: type a query, see the ranks and the chunk text."""

from __future__ import annotations

import pytest
from conftest import write
from test_browser_e2e import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, TIMEOUT_MS, streamlit_app, wait_idle  # noqa: F401

from docsassistant.ingest import index_paths

pytestmark = pytest.mark.browser


@pytest.mark.skipif(not CHROMIUM, reason="chromium is not installed: `apt-get install -y chromium` (Debian)")
def test_inspector_in_a_browser(streamlit_app, tmp_path):  # noqa: F811
    pytest.importorskip("playwright.sync_api", reason="playwright (python) is not installed")
    from playwright.sync_api import expect, sync_playwright

    write(
        tmp_path / "deck" / "shields.md",
        "# Shields\n\n## Harmonics\n\nSet `shield.harmonic_phase` to 7 before battle.",
    )
    write(tmp_path / "deck" / "mess.md", "# Mess\n\n## Breakfast\n\nPancakes are served at seven.")
    index_paths([tmp_path / "deck"], "deck", base=tmp_path)
    url, _fake = streamlit_app
    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(TIMEOUT_MS)
            page.goto(f"{url}/Search_inspector")
            page.get_by_text("Search inspector").first.wait_for()
            wait_idle(page)
            page.get_by_label("Query").fill("shield.harmonic_phase")
            # Commit the query (its own rerun) before the click: a click that lands while
            # the input's blur rerun runs can be dropped, and then nothing is searched.
            page.get_by_label("Query").press("Enter")
            wait_idle(page)
            page.get_by_role("button", name="Inspect").click()
            # The first search loads the embedding model in the app's process (torch import):
            # seconds on an idle machine, much longer on a saturated one.
            expect(page.locator('[data-testid="stDataFrame"]')).to_be_visible(timeout=4 * TIMEOUT_MS)
            wait_idle(page)
            summary = page.locator('[data-testid="stExpander"] summary').first
            expect(summary).to_contain_text("deck/shields.md")
            expect(summary).to_contain_text("Identifiers #1")
            summary.click()
            expect(page.get_by_text("Set `shield.harmonic_phase` to 7 before battle.")).to_be_visible()
            page.screenshot(path=str(ARTIFACTS / "search-inspector.png"), full_page=True)
        finally:
            browser.close()
