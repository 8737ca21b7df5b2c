class Logger:
    def log(self, message):
        return message


class Service:
    logger: Logger

    def __init__(self, logger):
        self.logger = logger

    def act(self):
        return self.logger.log("x")


Service(Logger()).act()
