"""Upload documentation files and manage what is indexed (logic: docsassistant.ui.upload_page)."""

from docsassistant.ui.nav import page_setup
from docsassistant.ui.upload_page import main

page_setup("Upload and index")
main()
