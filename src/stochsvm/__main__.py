"""``python -m stochsvm``: the command line (see :mod:`stochsvm.cli`)."""

import sys

from stochsvm.cli import main

sys.exit(main())
