"""`python -m docsassistant` runs the CLI."""

from docsassistant.cli import main

main()
