class Helper:
    def run(self):
        return 1


class Service:
    helper = Helper()

    def work(self):
        return self.helper.run()


Service.helper.run()
Service().work()
