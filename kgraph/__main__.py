from kgraph.cli.entry import main

main()
