class Timer {
  constructor() {
    this.ticks = 0;
  }

  start() {
    setTimeout(
      function () {
        this.tick();
      }.bind(this),
      0,
    );
    [1].forEach(this.tick.bind(this));
  }

  tick() {
    this.ticks += 1;
    this.report();
  }

  report() {
    console.log(this.ticks);
  }
}

new Timer().start();
