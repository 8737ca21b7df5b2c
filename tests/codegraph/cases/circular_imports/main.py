import a

a.ping(2)
