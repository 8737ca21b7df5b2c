class Parser:
    def parse(self, text):
        return text.split()


def make_parser():
    return Parser()


def run():
    p = make_parser()
    return p.parse("a b")


run()
