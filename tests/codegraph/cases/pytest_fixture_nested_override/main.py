import os

import pytest

# pytest runs the tests of this folder (no plugins: they only slow the traced run); what it
# calls has no caller here.
os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
assert pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir=.", "--confcutdir=.", "."]) == 0
