"""``python -m atmsim`` — same as the ``atmsim`` command."""

from .cli import main

main()
