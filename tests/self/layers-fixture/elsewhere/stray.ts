// flagged: room
export const stray = 'a folder with no floor';
