"""``python -m atmsim`` — same as the ``atmsim`` command."""

import sys

if __name__ == "__main__":  # not when a worker process re-imports the main module
    try:
        from .cli import main
    except KeyboardInterrupt:  # Ctrl-C while the command line is still loading
        sys.stderr.write("error: interrupted\n")
        sys.exit(130)
    main()
