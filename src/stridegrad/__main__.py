import sys

from stridegrad.cli import main

sys.exit(main())
