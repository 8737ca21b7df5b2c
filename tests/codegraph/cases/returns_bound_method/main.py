class Handler:
    def handle(self):
        return 1

    def get(self):
        return self.handle


Handler().get()()
