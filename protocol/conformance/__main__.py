"""`python -m jacquetd_protocol.conformance`: play the conformance vectors against an endpoint."""

import sys

from .runner import main

sys.exit(main())
