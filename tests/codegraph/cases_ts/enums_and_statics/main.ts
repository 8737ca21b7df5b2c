enum Level {
  Info,
  Warn,
}

class Log {
  static level: Level = Level.Info;

  static write(level: Level, message: string): void {
    if (level >= Log.level) {
      Log.emit(Level[level], message);
    }
  }

  private static emit(tag: string, message: string): void {
    console.log(`[${tag}] ${message}`);
  }
}

Log.write(Level.Warn, 'careful');
