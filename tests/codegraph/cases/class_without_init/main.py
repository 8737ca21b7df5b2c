class Plain:
    def run(self):
        return 1


Plain().run()
p = Plain()
p.run()
