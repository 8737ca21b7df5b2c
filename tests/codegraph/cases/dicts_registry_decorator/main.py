REGISTRY = {}


def register(name):
    def decorator(fn):
        REGISTRY[name] = fn
        return fn

    return decorator


@register("hello")
def hello():
    return "hello"


def run(name):
    return REGISTRY[name]()


run("hello")
