export const cli = 'cli';
