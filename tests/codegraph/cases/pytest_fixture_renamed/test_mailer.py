def test_send(mailer, outbox):
    mailer.send("a@example")
    outbox.flush()
