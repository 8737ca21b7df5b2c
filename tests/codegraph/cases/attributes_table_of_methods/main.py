class Machine:
    def __init__(self):
        self.handlers = {"start": self.start, "stop": self.stop}

    def start(self):
        return "started"

    def stop(self):
        return "stopped"

    def send(self, event):
        return self.handlers[event]()


machine = Machine()
machine.send("start")
machine.send("stop")
