class Registry {
  static items = new Map();

  static register = (name, fn) => {
    Registry.items.set(name, fn);
    Registry.log(name);
  };

  static log(name) {
    console.log('registered', name);
  }
}

function plugin() {
  return 'plugin';
}

Registry.register('p', plugin);
