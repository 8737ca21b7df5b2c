export const upper = (s: string): string => s.toUpperCase();
