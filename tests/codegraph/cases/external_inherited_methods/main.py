import argparse


class Parser(argparse.ArgumentParser):
    def setup(self):
        self.add_argument("--flag")
        return self


Parser(prog="x").setup().parse_args([])
