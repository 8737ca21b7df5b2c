class Mailer:
    def send(self, to):
        return to


class Outbox:
    def flush(self):
        return []
