class Engine:
    def start(self):
        return True
