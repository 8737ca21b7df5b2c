import pkg

pkg.mod.f()
