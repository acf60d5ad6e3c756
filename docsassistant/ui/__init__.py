"""The Streamlit UI's logic and rendering helpers (app.py and pages/ stay thin)."""
