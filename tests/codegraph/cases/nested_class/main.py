class Outer:
    class Inner:
        def ping(self):
            return "pong"

    def make(self):
        return Outer.Inner()


Outer().make().ping()
