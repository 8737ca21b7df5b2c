class Temperature {
  static fromF(f) {
    return new Temperature(Temperature.toC(f));
  }

  static toC(f) {
    return ((f - 32) * 5) / 9;
  }

  constructor(c) {
    this.c = c;
  }

  describe() {
    return Temperature.label(this.c);
  }

  static label(c) {
    return c.toFixed(1) + 'C';
  }
}

console.log(Temperature.fromF(212).describe());
