"""DocsAssistant web app: `streamlit run app.py` (the upload page is in pages/).

Thin on purpose: the chat page's logic lives in `docsassistant.ui.chat_page`.
"""

from docsassistant.ui.chat_page import main
from docsassistant.ui.nav import page_setup

page_setup("Chat")
main()
