def route(path):
    def decorator(fn):
        return fn

    return decorator


@route("/home")
def home():
    return "home"


home()
