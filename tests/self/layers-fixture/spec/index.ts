export const spec = 'spec';
