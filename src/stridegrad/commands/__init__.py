"""Subcommands of the ``stridegrad`` CLI: one module each (see ``stridegrad.cli``)."""
