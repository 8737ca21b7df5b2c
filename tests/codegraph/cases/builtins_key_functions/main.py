def weight(item):
    return item[1]


def length(item):
    return len(item)


items = [("a", 2), ("b", 1)]
ordered = sorted(items, key=weight)
largest = max(items, key=weight)
shortest = min(["aa", "b"], key=length)
items.sort(key=weight)
