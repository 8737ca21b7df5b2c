class Counter {
  count = 0;

  increment = () => {
    this.count += 1;
    this.render();
  };

  reset = () => {
    this.count = 0;
    this.render();
  };

  render() {
    console.log(this.count);
  }
}

const c = new Counter();
c.increment();
c.reset();
