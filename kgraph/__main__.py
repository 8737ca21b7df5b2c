from kgraph.cli.main import main

main()
