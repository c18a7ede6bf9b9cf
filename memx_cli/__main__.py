from memx_cli.cli import main

main()
