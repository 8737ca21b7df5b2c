def first():
    return 1


def second():
    return 2


hooks = []
hooks.append(first)
hooks.extend([second])
for hook in hooks:
    hook()
