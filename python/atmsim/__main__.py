"""``python -m atmsim`` — same as the ``atmsim`` command."""

if __name__ == "__main__":  # not when a worker process re-imports the main module
    from .cli import main

    main()
