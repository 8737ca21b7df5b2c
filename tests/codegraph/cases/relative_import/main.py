from pkg.a import f

f()
