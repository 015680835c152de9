"""``python -m hf_greedtok.cli``: the ``hf-greedtok`` command."""
import sys

from . import main

sys.exit(main())
