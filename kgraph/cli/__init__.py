"""The ``kgraph`` command line: one Click group per module, each a thin shell over the library."""
