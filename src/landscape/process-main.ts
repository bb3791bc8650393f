// Entry of the landscape process that `kcp up` forks (process.ts has both sides of the protocol).
import { serveLandscape } from './process.js';

serveLandscape();
