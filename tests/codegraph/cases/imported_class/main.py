from models import User

u = User("a")
u.save()
