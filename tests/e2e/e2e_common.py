"""What the e2e driver scripts share: how a test says it is skipped (exit
77, ctest's SKIP_RETURN_CODE) or failed (exit 1). Imported from the
scripts' own folder (Python puts it first on sys.path)."""
import sys


def skip(msg):
    print("SKIPPED: " + msg)
    sys.exit(77)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)
