from pkg.sub.x import run

run()
