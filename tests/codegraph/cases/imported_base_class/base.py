class Base:
    def run(self):
        return self.helper()

    def helper(self):
        return 0
