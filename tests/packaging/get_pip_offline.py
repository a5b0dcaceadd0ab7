"""Stand-in for the get-pip.py that ansible-test downloads from a host this machine cannot reach.

ansible-test runs it inside each fresh sanity venv as ``python quiet_pip.py ARGS`` with GET_PIP pointing
here; like get-pip.py it must leave ``pip ARGS`` installed. The stdlib's ensurepip provides a pip, which
then installs the exact pip version ansible-test asks for from the package index.
"""
import ensurepip
import os
import subprocess
import sys

# get-pip.py's own flags; pip install does not know them.
OWN_FLAGS = ("--no-setuptools", "--no-wheel")

# ensurepip empties PIP_* and points PIP_CONFIG_FILE at /dev/null; pip must then see the real settings.
env = dict(os.environ)
ensurepip.bootstrap(upgrade=True)
args = [a for a in sys.argv[1:] if a not in OWN_FLAGS]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "install", "--upgrade"] + args, env=env))
