"""See why a document is or is not found (logic: docsassistant.ui.inspector_page)."""

from docsassistant.ui.inspector_page import main
from docsassistant.ui.nav import page_setup

page_setup("Search inspector")
main()
