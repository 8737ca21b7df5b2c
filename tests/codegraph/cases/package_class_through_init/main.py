import pkg

m = pkg.Model()
m.save()
