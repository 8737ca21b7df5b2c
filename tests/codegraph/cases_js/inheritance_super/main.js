class Animal {
  constructor(name) {
    this.name = name;
  }

  speak() {
    return this.sound();
  }

  sound() {
    return '...';
  }
}

class Dog extends Animal {
  constructor(name) {
    super(name);
    this.tricks = [];
  }

  sound() {
    return 'woof';
  }

  speak() {
    return super.speak() + '!';
  }
}

const d = new Dog('rex');
console.log(d.speak());
