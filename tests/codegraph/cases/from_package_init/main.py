from pkg import f

f()
